# bash completion for dirload(8).
#
# Completes the commands, each command's options, files and directories for
# the options that take them, the values of options with a fixed set, and,
# after -b, the database suffixes of the configuration named with -f (its
# `suffix` lines) or -F (the olcSuffix of each olcDatabase entry); after
# compare's --with-suffix, those of --with-config or --with-config-dir.
#
# The commands, the options, which options take a value and the fixed sets of
# values are read from the program's own --help (asked once per shell and
# command), so the completion follows the dirload that is run, never an older
# list kept here.
#
# Installed as share/bash-completion/completions/dirload, where bash-completion
# loads it the first time dirload is completed; it needs nothing from
# bash-completion itself, so it may also be sourced from ~/.bashrc.

declare -gA _dirload_help_cache

# Prints the --help of the program $1 (with the command $2, if given).
_dirload_help() {
  local key="$1 ${2-}"
  if [[ -z ${_dirload_help_cache[$key]+set} ]]; then
    if [[ -n ${2-} ]]; then
      _dirload_help_cache[$key]=$("$1" "$2" --help 2>/dev/null)
    else
      _dirload_help_cache[$key]=$("$1" --help 2>/dev/null)
    fi
  fi
  printf '%s\n' "${_dirload_help_cache[$key]}"
}

# Prints the commands `$1 --help` lists.
_dirload_commands() {
  local line in_list=0
  while IFS= read -r line; do
    if [[ $line == Subcommands:* ]]; then
      in_list=1
    elif ((in_list)) && [[ $line =~ ^\ \ ([a-z][a-z-]*)\  ]]; then
      printf '%s\n' "${BASH_REMATCH[1]}"
    fi
  done < <(_dirload_help "$1")
}

# Prints one line per option line of `$1 $2 --help`: its names separated by
# commas, then its value type (empty for a flag), e.g. "-l,--ldif TEXT",
# "--backend TEXT:{lmdb,bdb}", "-q,--quick".
_dirload_option_lines() {
  local line
  while IFS= read -r line; do
    # Two spaces, the names, and a type after one space; a flag's names are
    # followed by the padding before its description, or by nothing.
    if [[ $line =~ ^\ \ (-[^ ]+)(\ ([^ ]+))? ]]; then
      printf '%s %s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[3]}"
    fi
  done < <(_dirload_help "$1" "$2")
}

# The words up to the cursor, with the pieces bash split at '=' and ':'
# (COMP_WORDBREAKS) joined again, so that dc=example,dc=com is one word. Sets
# _dirload_words; the last one is the word being completed.
_dirload_join_words() {
  local line=${COMP_LINE-} word i glue
  _dirload_words=()
  for ((i = 0; i <= COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]-}
    glue=0
    if ((i > 0)); then
      if [[ -n ${COMP_LINE+set} ]]; then
        # Glued when no blank separates it from the word before.
        [[ $line != [[:blank:]]* ]] && glue=1
      elif [[ $word == [=:]* || ${COMP_WORDS[i - 1]} == *[=:] ]]; then
        glue=1
      fi
    fi
    line=${line#"${line%%[![:blank:]]*}"}
    line=${line#"$word"}
    if ((glue)); then
      _dirload_words[-1]+=$word
    else
      _dirload_words+=("$word")
    fi
  done
}

# Prints the suffixes of the slapd.conf $1 and of the cn=config directory $2
# (either may be empty).
_dirload_suffixes() {
  local conf=${1/#\~/$HOME} dir=${2/#\~/$HOME} key value file
  if [[ -n $conf && -r $conf ]]; then
    while read -r key value; do
      [[ ${key,,} == suffix ]] || continue
      if [[ $value == \"* ]]; then
        value=${value#\"}
        value=${value%%\"*}
      else
        value=${value%%[[:space:]]*}
      fi
      [[ -n $value ]] && printf '%s\n' "$value"
    done <"$conf"
  fi
  if [[ -n $dir && -d $dir ]]; then
    for file in "$dir"/cn=config/olcDatabase=*.ldif; do
      [[ -r $file ]] || continue
      while read -r key value; do
        # A base64 value (olcSuffix::) is left out.
        [[ ${key,,} == olcsuffix: && -n $value ]] && printf '%s\n' "$value"
      done <"$file"
    done
  fi
}

_dirload() {
  local word=${2-${COMP_WORDS[COMP_CWORD]}}
  local -a words
  _dirload_join_words
  words=("${_dirload_words[@]}")
  local cword=$((${#words[@]} - 1))
  local cur=${words[cword]} prev=""
  ((cword > 0)) && prev=${words[cword - 1]}
  local prog=${words[0]/#\~/$HOME}
  COMPREPLY=()
  # What readline replaces is the part of the word after its last break
  # character; a lone break character is an empty word after it.
  [[ $word == [=:] ]] && word=""
  [[ $cur == *"$word" ]] || word=$cur

  # The command: the first word after the program that is not an option.
  local cmd="" i
  for ((i = 1; i < cword; i++)); do
    if [[ ${words[i]} != -* ]]; then
      cmd=${words[i]}
      break
    fi
  done
  if [[ -z $cmd ]]; then
    if [[ $cur == -* ]]; then
      mapfile -t COMPREPLY < <(compgen -W "-h --help --version" -- "$cur")
    else
      mapfile -t COMPREPLY < <(compgen -W "$(_dirload_commands "$prog")" -- "$cur")
    fi
    return 0
  fi

  # --name=VALUE is completed as VALUE after --name.
  if [[ $cur == --*=* ]]; then
    prev=${cur%%=*}
    cur=${cur#*=}
  fi

  local names type takes_value="" choices=""
  local -a options=() these
  while read -r names type; do
    IFS=, read -ra these <<<"$names"
    options+=("${these[@]}")
    if [[ ,$names, == *",$prev,"* && -n $type ]]; then
      takes_value=1
      if [[ $type =~ \{([^}]*)\} ]]; then
        choices=${BASH_REMATCH[1]//,/ }
      fi
    fi
  done < <(_dirload_option_lines "$prog" "$cmd")

  if [[ -n $takes_value ]]; then
    if [[ -n $choices ]]; then
      mapfile -t COMPREPLY < <(compgen -W "$choices" -- "$cur")
    else
      case $prev in
        -l | --ldif | -f | --config | --reject-file | --stats | --schema | --values | \
          --error-file | --json | --output | --with-config | --with-ldif | --changes)
          compopt -o filenames 2>/dev/null || true
          mapfile -t COMPREPLY < <(compgen -f -- "$cur")
          ;;
        -F | --config-dir | --db | --tmpdir | --with-config-dir | --with-db)
          compopt -o filenames 2>/dev/null || true
          mapfile -t COMPREPLY < <(compgen -d -- "$cur")
          ;;
        -b | --suffix | --base | -s | --subtree)
          _dirload_dn_reply "$cur" "$word" "${words[@]:1:cword-1}"
          return 0
          ;;
        --with-suffix)
          # compare's B: the suffixes of the configuration --with-config or
          # --with-config-dir names, A's options set aside.
          local -a other=()
          for i in "${words[@]:1:cword-1}"; do
            case $i in
              --with-config) other+=(-f) ;;
              --with-config=*) other+=("--config=${i#*=}") ;;
              --with-config-dir) other+=(-F) ;;
              --with-config-dir=*) other+=("--config-dir=${i#*=}") ;;
              -f | --config | -F | --config-dir | --config=* | --config-dir=*) other+=(-A) ;;
              *) other+=("$i") ;;
            esac
          done
          _dirload_dn_reply "$cur" "$word" "${other[@]}"
          return 0
          ;;
      esac
    fi
  elif [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${options[*]}" -- "$cur")
  fi
  _dirload_keep_readline_word "$cur" "$word"
  return 0
}

# Takes from each reply the part of the word that readline keeps: the text
# before its word $2 in the whole word $1 (dc=example,dc= of dc=example,dc=co).
_dirload_keep_readline_word() {
  local kept=${1%"$2"} i
  [[ -n $kept ]] || return 0
  for i in "${!COMPREPLY[@]}"; do
    COMPREPLY[i]=${COMPREPLY[i]#"$kept"}
  done
}

# Replies with the suffixes that start with $1 ($2: readline's word) of the
# configuration the words after $2 name with -f or -F.
_dirload_dn_reply() {
  local cur=$1 word=$2 conf="" dir="" suffix i
  shift 2
  local -a words=("$@")
  for ((i = 0; i < ${#words[@]}; i++)); do
    case ${words[i]} in
      -f | --config) conf=${words[i + 1]-} ;;
      --config=*) conf=${words[i]#*=} ;;
      -F | --config-dir) dir=${words[i + 1]-} ;;
      --config-dir=*) dir=${words[i]#*=} ;;
    esac
  done
  while IFS= read -r suffix; do
    [[ $suffix == "$cur"* ]] && COMPREPLY+=("$suffix")
  done < <(_dirload_suffixes "$conf" "$dir")
  _dirload_keep_readline_word "$cur" "$word"
  # Quoted as the shell reads the word back.
  for i in "${!COMPREPLY[@]}"; do
    suffix=${COMPREPLY[i]//\\/\\\\}
    COMPREPLY[i]=${suffix// /\\ }
  done
}

complete -F _dirload dirload
