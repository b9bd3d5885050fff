#!/bin/sh
# A bot for cardenvs' line protocol (docs/bots.md), in the shell and awk: it plays the legal move with the
# lowest id. The ids come in ascending order, so the first "id" after "legal" is the lowest.
while IFS= read -r line; do
    printf '%s\n' "$line" | awk '{ i = index($0, "\"legal\":[{\"id\":"); s = substr($0, i + 15); sub(/[^0-9].*/, "", s); print s }'
done
