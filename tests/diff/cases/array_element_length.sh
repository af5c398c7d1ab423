a=(x "hello world" "")
echo ${#a[0]} ${#a[1]} ${#a[2]} ${#a}
