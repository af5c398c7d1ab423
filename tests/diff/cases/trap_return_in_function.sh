f() { trap "echo ret" RETURN; echo in; }; f; echo after; g() { echo g; }; g; trap -p RETURN
