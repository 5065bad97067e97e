# Names the troubleshooting entry for known error messages. Source after common.sh.
# The table is scripts/lib/symptoms.tsv.

SYMPTOMS="$ROOT/scripts/lib/symptoms.tsv"
TROUBLESHOOTING="$ROOT/shared/TROUBLESHOOTING.md"

# symptom_rows prints the table's rows without its comments: PATTERN, HEADING, EXAMPLE.
symptom_rows() { grep -v '^#' "$SYMPTOMS" | grep -v '^$'; }

# troubleshooting_heading HEADING prints the heading of the entry whose title contains
# HEADING ("11. Conflict: the object has been modified"), or fails.
troubleshooting_heading() {
  grep -E '^## [0-9]+\. ' "$TROUBLESHOOTING" | grep -F -m 1 -- "$1" | sed 's/^## //'
}

# explain_symptoms FILE... prints, for each known symptom found in the files, the line
# that shows it and the troubleshooting entry that explains it; nothing when none is
# found. Each entry is named once, however often its symptom appears.
explain_symptoms() {
  local pattern heading example line entry
  local -A seen=()
  while IFS=$'\t' read -r pattern heading example; do
    line=$(grep -h -m 1 -E -- "$pattern" "$@" 2>/dev/null | head -n 1) || true
    # A line that an earlier, more precise row explained is not explained again.
    [[ -n $line && -z ${seen[$line]:-} ]] || continue
    entry=$(troubleshooting_heading "$heading") || continue
    ((${#seen[@]} > 0)) || printf '\033[1m==>\033[0m Known problems, explained in shared/TROUBLESHOOTING.md:\n' >&2
    seen[$line]=1
    line=${line#"${line%%[![:space:]]*}"}
    printf '    entry %s, for:\n      %s\n' "$entry" "${line:0:200}" >&2
  done < <(symptom_rows)
  return 0
}

# check_symptoms fails unless every row's pattern matches its example and its heading is
# an entry of shared/TROUBLESHOOTING.md (scripts/verify.sh).
check_symptoms() {
  local pattern heading example bad=()
  while IFS=$'\t' read -r pattern heading example; do
    grep -qE -- "$pattern" <<<"$example" || bad+=("pattern '$pattern' does not match its example")
    troubleshooting_heading "$heading" >/dev/null || bad+=("no entry of shared/TROUBLESHOOTING.md is titled '$heading'")
  done < <(symptom_rows)
  ((${#bad[@]} == 0)) || die "scripts/lib/symptoms.tsv:"$'\n'"$(printf '  %s\n' "${bad[@]}")"
}
