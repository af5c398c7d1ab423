echo abc | tr a-z A-Z
