# Point queue.example.internal at the standby region (run from a bastion).
dnsctl record set queue.example.internal CNAME queue-lb.standby.example.internal --ttl 30
dnsctl record get queue.example.internal   # confirm before telling the producers
