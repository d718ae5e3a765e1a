package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// webhookFamily POSTs AdmissionReviews straight to three servers with the
// same TLS settings: (a) controller-runtime's webhook server with a no-op
// handler, the framework's floor; (b) net/http echoing the body, the HTTP
// stack's floor; (c) crdguard-webhook with the example CRD and
// GuardPolicy. Over HTTP/2 (how kube-apiserver calls webhooks) and
// HTTP/1.1, at 1, 8 and 32 concurrent requests, with the example CR and a
// large one.
type webhookFamily struct {
	env   *environment
	cases []*webhookCase
}

type webhookCase struct {
	row    *row
	server *server
	load   load
}

// webhookServers are the servers in the order of their labels.
var webhookServers = []struct{ name, label string }{
	{serverNoop, "(a)"},
	{serverEcho, "(b)"},
	{serverCrdguard, "(c)"},
}

func (f *webhookFamily) name() string { return "webhook" }

func (f *webhookFamily) setup(ctx context.Context, env *environment) error {
	f.env = env
	bodies, err := reviewBodies(env.root)
	if err != nil {
		return err
	}
	duration := 1500 * time.Millisecond
	if env.o.quick {
		duration = 200 * time.Millisecond
	}
	duration /= turnsPerRound
	for _, http2 := range []bool{true, false} {
		for _, b := range bodies {
			for _, concurrency := range []int{1, 8, 32} {
				for _, ws := range webhookServers {
					s, err := env.server(ctx, ws.name)
					if err != nil {
						return err
					}
					a := answerReview
					if ws.name == serverEcho {
						a = answerEcho
					}
					f.cases = append(f.cases, &webhookCase{
						row: &row{
							family: f.name(), rateUnit: "req/s", latency: true,
							name: fmt.Sprintf("%s %s, %s, %s, c=%d", ws.label, ws.name, protocolName(http2), b.name, concurrency),
						},
						server: s,
						load: load{
							client: newClient(env.caPool, http2, concurrency), url: s.url + ownPath, body: b,
							http2: http2, answer: a, concurrency: concurrency, duration: duration,
						},
					})
				}
			}
		}
	}
	return nil
}

func protocolName(http2 bool) string {
	if http2 {
		return "HTTP/2"
	}
	return "HTTP/1.1"
}

// reviewBodies are AdmissionReviews of the example CR and the large one.
func reviewBodies(root string) ([]body, error) {
	example, err := exampleObject(root)
	if err != nil {
		return nil, err
	}
	var bodies []body
	for _, o := range []struct {
		name string
		obj  map[string]any
	}{{"example CR", example}, {"large CR", largeObject(example)}} {
		data, err := review(o.obj)
		if err != nil {
			return nil, err
		}
		bodies = append(bodies, body{name: fmt.Sprintf("%s (%.0f KiB)", o.name, float64(len(data))/1024), data: data})
	}
	return bodies, nil
}

// turnsPerRound is how many times a round runs every case, each time for
// an equal share of the case's time and in the reverse order of the time
// before; every turn is a sample. Short turns close together put the
// servers compared under the same load: at c=1 over HTTP/2, crdguard's
// requests per CPU-second against the no-op's spread 0.87–0.99× over four
// runs of five rounds of one 1.5 s turn, and 0.98–1.02× over four runs of
// 25 turns of 300 ms.
const turnsPerRound = 5

// round runs every case turnsPerRound times.
func (f *webhookFamily) round(ctx context.Context, i int) error {
	for turn := range turnsPerRound {
		for _, c := range alternate(f.cases, i*turnsPerRound+turn) {
			s, err := c.load.measure(ctx, c.server)
			if err != nil {
				return fmt.Errorf("%s: %w", c.row.name, err)
			}
			c.row.samples = append(c.row.samples, s)
			fmt.Fprintf(f.env.log, "webhook round %d, turn %d: %s: %.0f req/s, p50 %s\n", i+1, turn+1, c.row.name, s.rate, duration(s.p50))
		}
	}
	return nil
}

// rows compare every case with (a) and (b) at the same protocol, body and
// concurrency.
func (f *webhookFamily) rows() []*row {
	var rows []*row
	for i := 0; i+len(webhookServers) <= len(f.cases); i += len(webhookServers) {
		a, b, c := f.cases[i].row.median(), f.cases[i+1].row.median(), f.cases[i+2].row.median()
		for j, r := range []*row{f.cases[i].row, f.cases[i+1].row, f.cases[i+2].row} {
			m := r.median()
			var vs []string
			if j != 0 {
				vs = append(vs, fmt.Sprintf("p50 %s (a), CPU %s (a), req/s %s (a)", ratio(float64(m.p50), float64(a.p50)), ratio(float64(m.cpu), float64(a.cpu)), ratio(m.rate, a.rate)))
			}
			if j == 2 {
				vs[0] += " (turns " + pairedRatios(r, f.cases[i].row, rate) + ")"
				vs = append(vs, fmt.Sprintf("req per CPU-second %s (a) (turns %s) (target ≥ 0.95×)", ratio(float64(a.cpu), float64(c.cpu)), pairedRatios(f.cases[i].row, r, cpu)))
				vs = append(vs, fmt.Sprintf("p50 %s (b), CPU %s (b)", ratio(float64(c.p50), float64(b.p50)), ratio(float64(c.cpu), float64(b.cpu))))
			}
			r.vs = strings.Join(vs, "; ")
			rows = append(rows, r)
		}
	}
	return rows
}

func (f *webhookFamily) close() {}

// alternate is cases in order for even rounds and reversed for odd ones,
// so no case always runs on the warmer (or quieter) machine.
func alternate[T any](cases []T, round int) []T {
	out := make([]T, len(cases))
	for i, c := range cases {
		if round%2 == 1 {
			i = len(cases) - 1 - i
		}
		out[i] = c
	}
	return out
}

func (f *webhookFamily) notes() []string {
	return []string{"webhook: AdmissionReview v1 CREATEs POSTed over TLS keep-alive by this program to servers in child processes with the same TLS settings: " +
		"(a) controller-runtime's webhook server with an allow-all handler, the framework floor; (b) net/http writing the body back, the HTTP floor; " +
		"(c) crdguard-webhook --enable-http2 with examples/mysql's CRD and GuardPolicy (every rule runs; the objects are allowed). " +
		"c is the number of concurrent requests; HTTP/2 multiplexes them on one connection as kube-apiserver does, HTTP/1.1 uses one connection each. " +
		"CPU per op is the server process's CPU time (/proc/<pid>/stat) per request; the load generator shares the machine's cores. " +
		fmt.Sprintf("Each round runs every case in %d turns, in alternating order; the rows are medians over all turns.", turnsPerRound)}
}
