f=file.name.ext; echo ${f%.*}; echo ${f#*.}
