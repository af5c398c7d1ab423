f() { echo $V; }; V=temp f; echo "[$V]"
