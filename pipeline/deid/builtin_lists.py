"""Small built-in lists for kinds of value the shipped locale lists do not cover (yet).

Used only when :mod:`pipeline.locales` has no list of that name for the locale; a lead's extra
entries (``DeidContext.extra_lists``) are added on top either way. Generic names, invented for
this project: no real ward of a real hospital is implied.
"""
from __future__ import annotations

BUILTIN_LISTS: dict[tuple[str, str], tuple[str, ...]] = {
    ("en", "departments"): (
        "Cardiology Clinic", "Internal Medicine", "General Surgery", "Oncology Unit", "Neurology Ward",
        "Medical ICU", "Surgical ICU", "Cardiac Step-Down Unit", "Infusion Center", "Dialysis Unit",
        "Orthopedics Clinic", "Pulmonary Clinic", "Endocrine Clinic", "Wound Care Clinic", "Sleep Lab",
        "Memory Clinic", "Labor and Delivery", "Psychiatry Unit", "Rehabilitation Unit", "Urgent Care",
        "Gastroenterology Suite", "Pain Clinic", "Radiology Suite", "Short Stay Unit", "Geriatrics Ward",
    ),
    ("es", "departments"): (
        "Servicio de Cardiología", "Servicio de Medicina Interna", "Servicio de Cirugía General",
        "Unidad de Oncología", "Servicio de Neurología", "Unidad de Cuidados Intensivos", "Unidad Coronaria",
        "Hospital de Día", "Unidad de Diálisis", "Servicio de Traumatología", "Servicio de Neumología",
        "Servicio de Endocrinología", "Unidad del Sueño", "Unidad de Memoria", "Servicio de Psiquiatría",
        "Servicio de Rehabilitación", "Servicio de Urgencias", "Servicio de Digestivo",
        "Unidad del Dolor", "Servicio de Radiología", "Unidad de Corta Estancia", "Servicio de Geriatría",
    ),
    ("en", "locations_other"): (
        "the lake house", "the county fairgrounds", "the community pool", "the public library",
        "the train station", "the city park", "the harbor", "the ski lodge", "the shopping mall",
        "the riverside trail", "the bus depot", "the state beach", "the farmers market", "the marina",
        "the botanical garden", "the bowling alley", "the high school gym", "the campground",
    ),
    ("es", "locations_other"): (
        "el polideportivo", "la piscina municipal", "la biblioteca pública", "la estación de tren",
        "el parque municipal", "el puerto", "la estación de esquí", "el centro comercial", "el paseo marítimo",
        "la estación de autobuses", "la playa", "el mercado", "el camping", "el jardín botánico",
    ),
}
