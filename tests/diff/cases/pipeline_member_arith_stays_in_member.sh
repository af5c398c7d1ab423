i=0; : $((i++)) | cat; echo "i=$i"
