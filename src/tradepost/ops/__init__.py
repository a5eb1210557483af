"""Running the site: the processes (`serve`, `worker`), the jobs on a timer, backups and the
benchmarks. It sits above every business app, so it may import them; nothing imports it."""
