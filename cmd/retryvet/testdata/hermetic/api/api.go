// Package api serves the model behind the proxy of deploy/envoy.yaml: its
// route timeout is a deadline on the handler's request context, so the
// finding at the registration depends on the manifests.
package api

import (
	"net/http"

	"example.com/hermetic/llm"
)

// Server serves the model.
type Server struct {
	LLM *llm.Client
}

// Routes registers the handler.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/complete", s.Complete)
}

// Complete answers one request.
func (s *Server) Complete(w http.ResponseWriter, r *http.Request) {
	out, err := s.LLM.Complete(r.Context(), r.FormValue("q"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Write([]byte(out))
}
