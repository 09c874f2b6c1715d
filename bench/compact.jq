# The compact pipe line form, written with jq: what a user has today without vercy.
#   jq -rn -f bench/compact.jq STORE.jsonl
# Same output as `vercy compact STORE.jsonl` for a JSON-lines store with the profile's own keys:
# the header, then one line per record with the fields in the profile's order separated by `|`;
# absent or null -> empty, a null valid_to -> `~`, lists joined with `,`, trailing empty fields
# dropped, and the line form's escapes (`\\`, `\|`, `\n`, `\r`, `\,` inside a list item, `\~`,
# `\e` for the empty string, a leading `#` or blank line escaped).

def order: ["record_id", "valid_from", "valid_to", "source", "concept_owner",
            "owner_role", "supersedes", "release_to", "value"];

def text: if type == "string" then . else tojson end;

# escape one piece of text; $inlist also escapes `,` (only regex work when something needs it)
def esc($inlist):
  if . == "" then "\\e"
  elif . == "~" then "\\~"
  elif test(if $inlist then "[\\\\|\n\r,]" else "[\\\\|\n\r]" end) then
    gsub("\\\\"; "\\\\") | gsub("\\|"; "\\|") | gsub("\n"; "\\n") | gsub("\r"; "\\r")
    | if $inlist then gsub(","; "\\,") else . end
  else . end;

def cell($rec; $field):
  ($rec[$field]) as $v
  | if $v == null then
      (if $field == "valid_to" and ($rec | has("valid_to")) then "~" else "" end)
    elif ($v | type) == "array" then $v | map(text | esc(true)) | join(",")
    else $v | text | esc($field == "release_to" or $field == "supersedes")
    end;

"# " + (order | join("|")),
(inputs
 | . as $rec
 | [order[] | cell($rec; .)]
 | until(length == 0 or .[-1] != ""; .[:-1])
 | join("|")
 | if . == "" then "|"
   elif startswith("#") or test("^\\s*$") then "\\" + .
   else . end)
