# a[i]=(…) is bash's error at run time, "cannot assign list to array
# member": the rest of its line is dropped, the next line runs.
a=(1 2)
a[0]=(3 4); echo not reached
echo "status=$?" "${a[@]}"
a[1]=($(echo x)) true; echo "prefix $?"
