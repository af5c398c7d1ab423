x=hello; echo $x ${x}
