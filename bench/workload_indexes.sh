# The 15 indexes of the DESIGN workload, as dirload --index options:
#   source bench/workload_indexes.sh; dirload add ... "${WORKLOAD_INDEXES[@]}"
WORKLOAD_INDEXES=(
  --index "objectClass eq"
  --index "uid eq"
  --index "mail eq,sub"
  --index "cn eq,sub"
  --index "sn eq,sub"
  --index "givenName eq,sub"
  --index "telephoneNumber eq"
  --index "employeeNumber eq"
  --index "departmentNumber eq"
  --index "title eq"
  --index "l eq"
  --index "ou eq"
  --index "member eq"
  --index "manager eq"
  --index "postalCode eq"
)
# The same as slapd.conf lines.
WORKLOAD_INDEX_LINES='index objectClass eq
index uid eq
index mail eq,sub
index cn eq,sub
index sn eq,sub
index givenName eq,sub
index telephoneNumber eq
index employeeNumber eq
index departmentNumber eq
index title eq
index l eq
index ou eq
index member eq
index manager eq
index postalCode eq'
