# full comment
echo visible # trailing
#another
