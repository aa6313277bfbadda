# does not end at 1
1000 0
2000 0.5
3000 0.9
