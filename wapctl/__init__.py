"""wapctl: plan and audit Kubernetes workload-aware preemption (KEP-5710) offline."""

__version__ = "0.1.0"
