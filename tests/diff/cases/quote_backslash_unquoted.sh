echo a\ b \$x \\
