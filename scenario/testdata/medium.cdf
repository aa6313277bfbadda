# A medium flow-size distribution for the size-aware oracle tests: the
# small.cdf shape scaled 10x, 10 to 640 packets of 1000 B, so that packet
# granularity (non-preemptive packets) is small against a flow.
# size_bytes cdf
10000 0
40000 0.3
160000 0.7
640000 1
