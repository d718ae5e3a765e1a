package localcluster

import "net"

// FreePorts asks the kernel for n unused ports on 127.0.0.1. Each listener
// is held until all are picked, so the ports differ, then released for the
// caller to bind.
func FreePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
