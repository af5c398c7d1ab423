mkdir -p da db; touch fa; echo */
