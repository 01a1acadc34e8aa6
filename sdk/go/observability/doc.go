// Manage an observability service (datasets, monitors, notifiers, dashboards, tokens, users, roles and more) with Pulumi, from any Pulumi language.
package observability
