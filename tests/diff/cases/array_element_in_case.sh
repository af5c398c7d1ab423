a=(foo bar)
case ${a[1]} in
  b*) echo matched ;;
  *) echo no ;;
esac
