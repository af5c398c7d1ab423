# An agent-style script: 20+ commands, pipes into jq, head and grep, a for
# loop and command substitutions. It runs unchanged under dash, bash and
# guard-sh (with the arm's bin folder as PATH).
tea --version
tea issues list --output json | jq length
tea issues list --output json | jq -r '.[].title' | head -5
open=$(tea issues list --output json | jq -r '.[] | select(.state == "open") | .number' | wc -l)
echo "open issues: $open"
for i in 1 2 3; do
  tea issues view "$i" | head -c 40
  echo
done
tea issues list --output json | grep -c title
total=$(tea issues list --output json | jq length)
test "$total" -gt 0 && echo "total: $total"
printf '%s\n' c b a b | sort | uniq | wc -l
echo "done"
