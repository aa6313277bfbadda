# A small-mean flow-size distribution for oracle tests: sizes from 1 to 64
# packets of 1000 B, mass spread so that most flows span several packets.
# size_bytes cdf
1000 0
4000 0.3
16000 0.7
64000 1
