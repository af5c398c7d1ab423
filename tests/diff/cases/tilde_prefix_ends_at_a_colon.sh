echo ~root:x ~root/a:~root a:~root --~root:x
echo ${u:-~root:x} "${u:-~root:x}"
x=~root:~root:a~root; echo $x
HOME=/h; echo ~:y ${u:-~:z}
