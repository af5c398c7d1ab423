# [[ ]] reads groups whatever extglob says; elsewhere they need it.
[[ ab == @(ab|cd) ]] && echo at-one
p='+(c|d)'; [[ cdcd == $p ]] && echo from-a-variable
[[ x.txt == !(*.rs) ]] && echo negated
x=aab; echo "${x/$p/X}" off
!(false) && echo negation-of-a-subshell
shopt -s extglob
case ab in @(ab|x)) echo case-group;; esac
case abab in +(ab)) echo case-repeat;; esac
case '' in *(z)) echo case-empty;; esac
x=hello; echo ${x//+(l)/L} ${x##*(h|e)} ${x%%@(lo|o)} ${x/?(x)h/J}
mkdir d && cd d && : > a.sh && : > b.txt && : > c.rs && : > .hidden.sh
echo @(*.sh|*.txt) !(*.rs) "@(a|b)" @("x y"|z) +([a-c]).@(sh|rs)
echo nothing-@(q|r)-matches
shopt -s nullglob; echo [@(q|r)]; shopt -u nullglob
[[ a == @(a|\|) && '|' == @(a|\|) ]] && echo escaped-bar
f() { [[ $1 == +([0-9]) ]] && echo "$1 is a number" || echo "$1 is not"; }
f 2024; f 20x4
