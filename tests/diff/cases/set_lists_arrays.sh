zzarr=(1 "2 3")
set | grep "^zzarr="
