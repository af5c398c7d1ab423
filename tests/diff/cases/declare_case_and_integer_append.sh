# declare -l / -u put every value assigned in lower / upper case (both at
# once cancel), shown by declare -p; += on an integer adds.
declare -lrx v=AB; declare -p v
declare -iu w=1; declare -p w
declare -l x; x=Hello; echo $x; x+=WORLD; echo $x
declare -u y=abc; declare +u y; y=def; echo $y
declare -l -u z=MiXed; echo $z; declare -p z
declare -i n=5; n+=3; echo $n; n+=2*2; echo $n
declare -u s; read s <<< "typed in"; echo $s
f() { local -u q=low; echo $q; }; f
