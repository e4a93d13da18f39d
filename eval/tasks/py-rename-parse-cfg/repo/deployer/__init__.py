"""deployer: plan deployments from a config file."""
from .config import ConfigError, parse_cfg
from .plan import Plan, make_plan

__all__ = ["ConfigError", "parse_cfg", "Plan", "make_plan"]
__version__ = "1.4.0"
