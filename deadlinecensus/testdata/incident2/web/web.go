// Package web is the interactive path: 100s per request.
package web

import (
	"context"
	"net/http"
	"time"

	"example.com/incident2/assist"
)

// Handler answers questions over HTTP.
type Handler struct {
	Svc *assist.Service
}

// Mount registers the handler.
func Mount(mux *http.ServeMux, h *Handler) {
	mux.Handle("/ask", h)
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 100*time.Second)
	defer cancel()
	a, err := h.Svc.Ask(ctx, r.URL.Query().Get("q"))
	if err != nil {
		http.Error(w, "no answer", http.StatusBadGateway)
		return
	}
	w.Write([]byte(a))
}
