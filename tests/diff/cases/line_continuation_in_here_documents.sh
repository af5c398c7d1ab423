x=1
cat <<E
a$\
x
b\
E
E
cat <<'E'
a$\
x
E
cat <<E\
F
y
EF
cat <<-E
	a\
	b
	E
