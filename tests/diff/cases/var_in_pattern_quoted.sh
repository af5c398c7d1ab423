x="a*"; y="a*bc"; echo ${y#"$x"} ${y#$x}
