a=(5 6 7)
i=2
echo $(( a[i] )) $(( a[i-1] ))
j=i
echo $(( a[j] ))
