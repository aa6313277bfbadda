// Package queueing computes M/G/1 response times and slowdowns under
// processor sharing, FCFS, SRPT and LAS: the analytic oracles of
// docs/model.md §11.1 that the simulator's single-bottleneck tests
// compare against.
//
// # Model
//
// Jobs arrive as a Poisson process of rate lambda, carry a size X in bytes
// drawn from a Dist, and are served by one work-conserving server of rate C
// bytes per second; service is a fluid (preemption at any instant, no
// packets, no RTT). A job of size x needs x/C seconds of service; the load
// is rho = lambda E[X] / C and must be below 1. For a job of size x:
//
//	PS    E[T(x)] = x / (1-rho)
//	FCFS  E[T(x)] = x + lambda E[X^2] / (2 (1-rho))                     (Pollaczek-Khinchine)
//	SRPT  E[T(x)] = lambda m2(x) / (2 (1-rho(x-)) (1-rho(x))) + int_0^x dt / (1-rho(t))
//	LAS   E[T(x)] = lambda m2(x) / (2 (1-rho_x)^2) + x / (1-rho_x)
//
// with m2(x) = E[min(X,x)^2], rho(x) = lambda E[X; X <= x] (rho(x-) the
// same over X < x) and rho_x = lambda E[min(X,x)], all in units of service
// time. The means are E[T] = E[T(X)] and the mean slowdown E[T(X)/X].
//
// Ties, which only point masses create: SRPT serves the earlier arrival
// first among equal remaining sizes, which makes the waiting term the one
// of a preemptive priority queue, (1-rho(x-))(1-rho(x)); without point
// masses it is Schrage and Miller's (1-rho(x))^2. LAS shares the server
// among jobs of equal attained service, and its formula holds unchanged.
// A fluid simulation in the tests confirms both rules on a two-size
// distribution (TestMonteCarlo). With the simulator's integer sizes each
// size carries a tiny share of the load, so the rule chosen changes
// little there.
//
// # Units
//
// Sizes are bytes (float64), the service rate is bytes per second (a 100
// Gbps link is 100e9/8 = 12.5e9), times are seconds (float64) and
// slowdowns are dimensionless. Internally time is counted in bytes of
// service, which makes every result exactly proportional to 1/C.
//
// NewMG1 takes rho and sets lambda = rho C / E[X] from the Dist's own
// mean. dcsim's flow generator sets lambda from the CDF header's
// continuous mean while it samples integer sizes, so its true load is
// slightly lower (0.3% for homa_w1); pass its lambda to NewMG1Arrivals to
// reproduce it exactly. A queue whose integrals cannot be computed in
// float64 is refused: a load so close to 1 that a density times
// 1/(1-rho)^2 overflows, or a continuous piece fewer than 2^20 float64
// sizes wide, where the quadrature's nodes round to a handful of sizes
// (found by FuzzNewPiecewise; a point mass there is accepted).
//
// # Distributions
//
// NewPiecewise reads the points of a dcsim CDF (docs/model.md §7.1): uniform
// density between consecutive points, a point mass where a size repeats,
// no mass where the CDF is flat. Continuous takes the linear interpolant Y
// itself. Integer takes max(1, floor(Y)), what the simulator samples
// (docs/model.md §7.2): every size below 65536 B is an exact point mass
// P(k <= Y < k+1) (size 1 also takes Y < 1); above 65536 B the mass that
// floor sends to k is spread evenly over [k-1/2, k+1/2], which for a CDF
// with integer sizes is the uniform density of Y shifted down by 1/2 B. The
// spread keeps each integer's mass (and, for integer CDF sizes, its mean)
// and moves no mass by more than 1/2 B (relative 7.6e-6); against a brute-force sum over every integer
// size the four policies' means agree to 1e-11 on websearch (30M sizes),
// homa_w1 and a synthetic CDF with non-integer points (the tests assert
// 1e-9).
//
// The choice matters for small sizes and for slowdown. For homa_w1 at
// rho = 0.7 the Continuous and Integer mean response times differ by up
// to 0.3% and the FCFS slowdowns by 25%; for websearch the means differ
// by 3e-7. A Continuous CDF that starts at (0, 0) has
// E[1/X] = +Inf and so an infinite FCFS slowdown; the other policies'
// slowdowns stay finite.
//
// Exponential and Deterministic build reference distributions for tests.
//
// # Numerics
//
// Moments, E[1/X] and the partial sums inside a piece are closed forms
// (the exponential's use incomplete gamma functions and E1). The SRPT and
// LAS means integrate smooth rational functions over each continuous piece
// with globally adaptive Gauss-Kronrod (7, 15) quadrature at relative
// tolerance 1e-11 per integral (looser above rho = 0.9986, where
// 1 - rho(t) itself carries a relative rounding error of eps/(1-rho)).
// Point masses are summed exactly. The SRPT residence term is integrated
// once over t after exchanging the order of integration:
// E[R(X)] = int P(X > t) dt/(1-rho(t)) and
// E[R(X)/X] = int E[1/X; X > t] dt/(1-rho(t)).
//
// Verified accuracy: M/M/1 means agree with an independent computation
// (closed forms and gonum's fixed Gauss-Legendre rules) to 1e-10;
// E[T]/E[X] = 5 for PS, FCFS and LAS to 1e-12 and SRPT gives 2.35277 at
// rho = 0.8; hand-derived deterministic and two-point values agree to
// 1e-13; means agree with Response integrated over the CDF to 1e-9.
//
// # Not provided
//
// A finite-level MLFQ (PIAS with K levels, round robin inside a level;
// Kleinrock's multilevel processor sharing, Queueing Systems vol. 2,
// 1976) is not modelled. Seen from level j, the service of the higher
// levels interrupts the server and releases jobs into level j in batches,
// so the level behaves as a batch-arrival M^X/G/1 processor-sharing queue,
// whose conditional mean response time solves an integral equation
// (Kleinrock, Muntz and Rodemich 1971) rather than a closed form. We did
// not implement or guess it. LAS is the infinite-level limit.
package queueing
