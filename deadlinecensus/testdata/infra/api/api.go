// Package api serves the model behind the front proxy and the mesh of
// deploy/: the route timeouts there are deadlines on these handlers'
// request contexts.
package api

import (
	"context"
	"net/http"

	"example.com/infra/llm"
)

// Server serves the model.
type Server struct {
	LLM *llm.Client
}

// Routes registers the handlers. The findings are at the registration: the
// route that cuts the request off is in a YAML file.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/complete", s.Complete)                                     // want `retry in llm.\(\*Client\).Complete can never start on this path: deadline 15s \(envoy route /v1/complete timeout, Envoy default 15s \(RouteAction.timeout, Envoy v1.x\), deploy/envoy.yaml:23\) < 72s needed \(waits 7s, 11s; reserve 65s\); raise the route's timeout on this path; path: api.\(\*Server\).Complete -> api.\(\*Server\).answer -> llm.\(\*Client\).Complete` `deadline 15s is below the 40s p99 of llm.\(\*Client\).Complete: slow answers become errors and the backup is never asked \(envoy route /v1/complete timeout, Envoy default 15s \(RouteAction.timeout, Envoy v1.x\), deploy/envoy.yaml:23\); path: api.\(\*Server\).Complete`
	mux.HandleFunc("/v1/complete/quick", func(w http.ResponseWriter, r *http.Request) { // want `retry in llm.\(\*Client\).Complete can never start on this path: deadline 15s \(envoy route /v1/complete timeout, Envoy default 15s` `below the 40s p99`
		out, _ := s.LLM.Complete(r.Context(), r.FormValue("q"))
		w.Write([]byte(out))
	})
	mux.HandleFunc("/v1/long", s.Long)          // 120s on this route: the retry fits
	mux.HandleFunc("/v1/stream", s.Stream)      // timeout 0s: off
	mux.HandleFunc("/v1/batch", s.Batch)        // want `deadline 20s \(istio VirtualService batch /v1/batch timeout, deploy/mesh.yaml:17\) < 72s needed` `deadline 20s is below the 40s p99`
	mux.HandleFunc("/v1/other", s.Other)        // 300s from both layers
	mux.HandleFunc("/v1/complete/bg", s.Detach) // the pipeline does not run on the request's context
}

// Complete answers one request.
func (s *Server) Complete(w http.ResponseWriter, r *http.Request) {
	s.answer(w, r.Context(), r.FormValue("q"))
}

// Long is Complete on a path whose route timeout was raised.
func (s *Server) Long(w http.ResponseWriter, r *http.Request) {
	s.answer(w, r.Context(), r.FormValue("q"))
}

// Stream is Complete on a path with no route timeout.
func (s *Server) Stream(w http.ResponseWriter, r *http.Request) {
	s.answer(w, r.Context(), r.FormValue("q"))
}

// Batch is behind the mesh's 20s.
func (s *Server) Batch(w http.ResponseWriter, r *http.Request) {
	s.answer(w, r.Context(), r.FormValue("q"))
}

// Other has 300s everywhere.
func (s *Server) Other(w http.ResponseWriter, r *http.Request) {
	s.answer(w, r.Context(), r.FormValue("q"))
}

// Detach runs the pipeline on a context of its own: the proxy's timeout
// does not reach it (a lookalike that must stay quiet).
func (s *Server) Detach(w http.ResponseWriter, r *http.Request) {
	s.answer(w, context.Background(), r.FormValue("q"))
}

func (s *Server) answer(w http.ResponseWriter, ctx context.Context, q string) { // want answer:`needs 72s on param 2 for llm.\(\*Client\).Complete \(p99 40s\)`
	out, err := s.LLM.Complete(ctx, q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Write([]byte(out))
}
