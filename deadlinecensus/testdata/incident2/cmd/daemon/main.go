// Command daemon wires the paths: the worker gets the hosted assistant,
// the mirror the local one.
package main

import (
	"net/http"
	"os"

	"example.com/incident2/assist"
	"example.com/incident2/batch"
	"example.com/incident2/offline"
	"example.com/incident2/queue"
	"example.com/incident2/web"
)

func main() {
	svc := assist.NewService(os.Getenv("MODEL_URL"), os.Getenv("SPARE_URL"))
	jobs, out := make(chan string), make(chan string)
	go queue.NewWorker(svc, jobs, out).Serve()

	m := queue.NewMirror(&offline.Model{Answers: map[string]string{}})
	go func() {
		for q := range jobs {
			out <- m.One(q)
		}
	}()

	go batch.Fan(svc, os.Args[1:])

	mux := http.NewServeMux()
	web.Mount(mux, &web.Handler{Svc: svc})
	http.ListenAndServe(":8080", mux)
}
