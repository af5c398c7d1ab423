exec 3>&2
exec 2>&-
echo a | cat >&2; echo "st=$?"
ls /nonexistent-guard-sh-case; echo "ls=$?"
echo e | tr e f 2>&3
