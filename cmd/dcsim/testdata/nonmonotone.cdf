# not monotone
1000 0
500 0.5
2000 1
