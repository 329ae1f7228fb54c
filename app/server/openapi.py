"""`/api/openapi.json`: an OpenAPI 3.1 document generated from the route table's pydantic models.

It describes what this build serves: `POST /api/invoke/<route>` for every route, and the REST
routes of `app/server/rest_table.py` whose route is present. Schemas come from the same models
the API validates with, so the document cannot drift from the code.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from app.server.contracts import RouteTypes
from app.server.rest_table import REST_ROUTES, RestRoute

Schema = dict[str, Any]
_REF = "#/components/schemas/{model}"
_ERROR = {"$ref": "#/components/schemas/ErrorEnvelope"}
_ERROR_ENVELOPE: Schema = {
    "type": "object",
    "required": ["ok", "error"],
    "properties": {
        "ok": {"const": False},
        "error": {
            "type": "object",
            "required": ["code", "message", "details"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "details": {"type": "object", "additionalProperties": {"type": "string"}},
            },
        },
    },
}
_REST_ERRORS = ("400", "401", "403", "404", "409", "413", "422", "501", "502", "503")
_INVOKE_ERRORS = ("400", "401", "403", "413")


def _success(data_schema: Schema) -> Schema:
    return {
        "type": "object",
        "required": ["ok", "data"],
        "properties": {"ok": {"const": True}, "data": data_schema},
    }


def _json(schema: Schema, description: str) -> Schema:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


class _Schemas:
    """Component schemas for every model, and lookups of a model's own (resolved) schema."""

    def __init__(self, route_types: RouteTypes) -> None:
        keys: list[tuple[type[BaseModel], JsonSchemaMode]] = []
        for request, response in route_types.values():
            keys += [(request, "validation"), (response, "serialization")]
        unique = list(dict.fromkeys(keys))
        refs, defs = models_json_schema(unique, ref_template=_REF)
        self.refs = refs
        self.components: dict[str, Schema] = dict(defs.get("$defs", {}))

    def ref(self, model: type[BaseModel], mode: JsonSchemaMode) -> Schema:
        return dict(self.refs[(model, mode)])

    def resolved(self, model: type[BaseModel]) -> Schema:
        ref = self.refs[(model, "validation")].get("$ref", "")
        return self.components.get(ref.rsplit("/", 1)[-1], {})


def _rest_operation(
    spec: RestRoute, types: tuple[type[BaseModel], type[BaseModel]], schemas: _Schemas
) -> Schema:
    request, response = types
    model = schemas.resolved(request)
    properties: dict[str, Schema] = model.get("properties", {})
    required = set(model.get("required", []))
    params = [
        {"name": name, "in": "path", "required": True, "schema": properties.get(name, {"type": "string"})}
        for name in spec.path_params
    ]
    params += [
        {"name": name, "in": "query", "required": False, "schema": properties.get(name, {"type": "string"})}
        for name in spec.query
        if name in properties
    ]
    operation: Schema = {
        "operationId": f"{spec.operation_id}_{spec.method.lower()}",
        "summary": spec.summary,
        "description": f"Calls the `{spec.route}` route.",
        "parameters": params,
        "responses": {
            str(spec.status): (
                {"description": "Done (no body)"}
                if spec.status == 204
                else _json(_success(schemas.ref(response, "serialization")), "Success")
            ),
            **{code: _json(_ERROR, "Refused or failed") for code in _REST_ERRORS},
        },
    }
    if spec.body:
        taken = set(spec.path_params) | set(spec.query)
        body = {
            "type": "object",
            "properties": {k: v for k, v in properties.items() if k not in taken},
            "required": sorted(required - taken),
            "additionalProperties": False,
        }
        operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    return operation


def _invoke_operation(
    route: str, types: tuple[type[BaseModel], type[BaseModel]], schemas: _Schemas
) -> Schema:
    request, response = types
    envelope = {"oneOf": [_success(schemas.ref(response, "serialization")), _ERROR]}
    return {
        "operationId": f"invoke_{route.replace('.', '_')}",
        "summary": f"Invoke `{route}`",
        "description": "The envelope is returned with 200 whatever the application answered; read `ok`.",
        "requestBody": {
            "required": False,
            "content": {"application/json": {"schema": schemas.ref(request, "validation")}},
        },
        "responses": {
            "200": _json(envelope, "The API envelope"),
            **{c: _json(_ERROR, "Refused") for c in _INVOKE_ERRORS},
        },
    }


def openapi_document(route_types: RouteTypes, server_url: str) -> Schema:
    schemas = _Schemas(route_types)
    paths: dict[str, dict[str, Schema]] = {}
    for spec in REST_ROUTES:
        if spec.route in route_types:
            paths.setdefault(spec.path, {})[spec.method.lower()] = _rest_operation(
                spec, route_types[spec.route], schemas
            )
    for route in sorted(route_types):
        paths[f"/api/invoke/{route}"] = {"post": _invoke_operation(route, route_types[route], schemas)}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "CashCode local API",
            "version": "1",
            "description": "Scripts authenticate with `Authorization: Bearer <token>` from serve.json. "
            "The CashCode WebSocket protocol is at /ws.",
        },
        "servers": [{"url": server_url}],
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": {**schemas.components, "ErrorEnvelope": _ERROR_ENVELOPE},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
