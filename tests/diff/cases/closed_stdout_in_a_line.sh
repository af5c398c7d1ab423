# A line closes its standard output: pipes and files the shell opens
# must not take descriptor 1, or a pipeline's output goes astray.
exec 3>&1
exec >&-
echo a | cat
echo "st=$?" >&3
echo b | tr b c >&3
printf 'x\n' > f1; cat f1 >&3
v=$(echo sub); echo "v=$v" >&3
cat <<'END' | wc -l >&3
one
two
END
echo gone
echo "echo=$?" >&3
