mkdir -p d/e; touch d/e/f1 d/e/f2; echo d/*/f*
