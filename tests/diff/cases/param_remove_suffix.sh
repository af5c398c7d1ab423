f=archive.tar.gz; echo ${f%.*} ${f%%.*}
