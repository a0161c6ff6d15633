# The Debian package, made by `cpack -G DEB` in a build directory: what the
# install rules install (bin/, the manual pages, the bash completion) under
# /usr, plus the copyright file and changelog Debian asks of every package.
# Depends is computed by dpkg-shlibdeps from the libraries the binaries link,
# so it names the Debian packages of the build machine's liblmdb, libdb,
# zlib, utf8proc and libldap; slapd is recommended, not required, since
# dirload's native format needs no slapd.
#
# A package is meant to be built with -DDIRLOAD_TESTS=OFF, which leaves out
# the fault points the tests use (DIRLOAD_FAULT_INJECTION).
set(DIRLOAD_PACKAGE_MAINTAINER "dirload maintainers <dirload@example.org>"
    CACHE STRING "Maintainer field of the Debian package: NAME <EMAIL>")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME dirload)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${DIRLOAD_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "bulk loader, offline indexer and exporter for OpenLDAP directory data")
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # dirload_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${DIRLOAD_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS slapd)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# The extended description, after the synopsis (the summary above).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "dirload loads LDIF into an embedded database and builds its attribute
indexes offline: the work of slapadd, slapindex and slapcat, with their
options, and of slapmodify and slapschema. It writes slapd 2.5's own
back-mdb database, every record as slapadd writes it, so that slapd serves
what it loaded, or its own format on LMDB or Berkeley DB 5.3.
.
It also searches, verifies and reports on a database offline, and finishes
or rolls back work that was interrupted. dirload-gen writes synthetic LDIF
to try it on; dirload-searchrate measures the search rate slapd sustains.")

# Debian's copyright file and changelog, in the package only: `cmake
# --install` leaves them out (component deb, excluded from a plain install),
# and CPack installs that component beside the default one.
configure_file(${CMAKE_SOURCE_DIR}/packaging/changelog.in
               ${CMAKE_BINARY_DIR}/packaging/changelog @ONLY)
find_program(DIRLOAD_GZIP gzip)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/packaging/changelog.gz
  COMMAND ${CMAKE_COMMAND} -DGZIP=${DIRLOAD_GZIP} -DINPUT=${CMAKE_BINARY_DIR}/packaging/changelog
          -DOUTPUT=${CMAKE_BINARY_DIR}/packaging/changelog.gz
          -P ${CMAKE_SOURCE_DIR}/cmake/DirloadGzip.cmake
  DEPENDS ${CMAKE_BINARY_DIR}/packaging/changelog ${CMAKE_SOURCE_DIR}/cmake/DirloadGzip.cmake
  VERBATIM)
add_custom_target(dirload_package_docs ALL DEPENDS ${CMAKE_BINARY_DIR}/packaging/changelog.gz)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/copyright ${CMAKE_BINARY_DIR}/packaging/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT deb EXCLUDE_FROM_ALL)
set(CPACK_INSTALL_CMAKE_PROJECTS
    "${CMAKE_BINARY_DIR};dirload;Unspecified;/"
    "${CMAKE_BINARY_DIR};dirload;deb;/")

include(CPack)
