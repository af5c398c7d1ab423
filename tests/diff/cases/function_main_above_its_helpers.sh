main() {
  greet world
  count 3
}
greet() { echo "hello $1"; }
count() { local i; for ((i=1;i<=$1;i++)); do printf "%s " $i; done; echo; }
main "$@"
