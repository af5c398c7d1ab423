touch a.txt; echo "*.txt" '*'.txt
