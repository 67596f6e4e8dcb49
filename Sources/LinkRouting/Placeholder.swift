public enum RoutingPlaceholder {}
