# cd follows $CDPATH for a relative name not starting with `.`, and says
# where it went when a CDPATH folder (not the working one) held it.
mkdir -p top/inner/deep other
said=$(CDPATH=top cd inner); echo "said ${said##*/}"
said=$(CDPATH=:top cd top); echo "said [${said}]"
CDPATH=top cd inner >/dev/null; echo "${PWD##*/}"; cd ../..
CDPATH=/nonexistent:top cd inner >/dev/null; echo "${PWD##*/}"; cd ../..
CDPATH=top cd ./inner; echo "dot $?"
CDPATH=top cd nosuch; echo "missing $?"
