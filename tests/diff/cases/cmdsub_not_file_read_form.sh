echo hi > f; echo $(< f; echo more); echo $(cat < f)
