"""Route types of the attachments capability (merged in app/api/route_types.py)."""

from __future__ import annotations

from pydantic import BaseModel

from app.attachments import api_models as a

ROUTE_TYPES: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "attachments.upload": (a.AttachmentUpload, a.UploadedAttachment),
    "attachments.data": (a.AttachmentDataQuery, a.AttachmentData),
}
