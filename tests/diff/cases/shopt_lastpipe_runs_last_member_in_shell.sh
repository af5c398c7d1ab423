shopt -s lastpipe
echo x | read v
echo "[$v]"
printf "a\nb\n" | while read l; do last=$l; done
echo "[$last]"
true | false
echo $? ${PIPESTATUS[@]}
