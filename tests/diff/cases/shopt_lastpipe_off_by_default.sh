echo x | read v
echo "[$v]"
shopt lastpipe dotglob nullglob
shopt -p lastpipe
shopt -s lastpipe
shopt lastpipe
