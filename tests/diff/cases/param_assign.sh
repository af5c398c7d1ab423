unset u; echo ${u=set1}; echo $u; e=; echo ${e:=set2}; echo $e
