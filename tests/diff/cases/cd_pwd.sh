mkdir -p a/b; cd a/b; echo ${PWD##*/}; cd ..; pwd | tr / "\n" | tail -1
