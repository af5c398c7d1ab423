# A quoted part, even an empty one, is a field of its own where it stands
# beside the blanks an unquoted expansion splits on; one at the very start
# of the word after no blank does not make an empty field.
A="   abc   def   "
printf '[%s]' $A; echo
printf '[%s]' ""$A""; echo
for i in ""$A""; do printf '=%s=' "$i"; done; echo
B=" a"; printf '[%s]' $B"x"; echo
C="a "; D=" b"; printf '[%s]' $C""$D; echo
IFS=:; E="a:"; printf '[%s]' $E"" ""$E; echo
