// A Pub/Sub server for the tests where Google's emulator (Debian package
// google-cloud-cli-pubsub-emulator) is not installed: Google's own in-memory fake, pstest,
// serving plain gRPC on 127.0.0.1:<-port> until SIGTERM.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"cloud.google.com/go/pubsub/v2/pstest"
)

func main() {
	port := flag.Int("port", 0, "loopback port to listen on (0: any)")
	flag.Parse()
	srv := pstest.NewServerWithPort(*port)
	fmt.Println("listening on", srv.Addr)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
	srv.Close()
}
