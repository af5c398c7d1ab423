echo "it's" 'say "hi"'
