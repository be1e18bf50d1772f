"""Clinical content without PHI: problems, findings, hospital courses and medications.

It deliberately contains things that look like PHI but are not, so that detectors are also
tested on false positives: eponyms (Parkinson's, Graves', Bell's palsy, Foley), ratios and
scores that look like dates (BP 132/84, 3/6 murmur, 5/5 strength), doses and lab values.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scenario:
    problem: str
    complaint: str
    history: tuple[str, ...]
    exam: str
    course: tuple[str, ...]
    meds: tuple[str, ...]
    plan: str


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        problem="acute decompensated heart failure",
        complaint="progressive dyspnea on exertion, orthopnea and a 4 kg weight gain over two weeks",
        history=("ischemic cardiomyopathy with an EF of 30%", "hypertension", "type 2 diabetes mellitus",
                 "chronic kidney disease stage 3"),
        exam="BP 148/92, HR 104, RR 24, SpO2 91% on room air. JVP to the angle of the jaw, bibasilar crackles, "
             "a 3/6 holosystolic murmur at the apex and 2+ pitting edema to the knees",
        course=("{He} was diuresed with IV furosemide 80 mg twice daily with a net negative balance of 6 L.",
                "Creatinine peaked at 1.9 and returned to a baseline of 1.4.",
                "Echocardiogram showed an EF of 25-30% with moderate mitral regurgitation.",
                "Carvedilol was held on admission and restarted at 3.125 mg twice daily before discharge."),
        meds=("furosemide 40 mg PO daily", "carvedilol 3.125 mg PO BID", "lisinopril 5 mg PO daily",
              "spironolactone 25 mg PO daily", "atorvastatin 80 mg PO nightly"),
        plan="daily weights, 2 g sodium diet, fluid restriction of 1.5 L, BMP in one week",
    ),
    Scenario(
        problem="community-acquired pneumonia",
        complaint="fever to 39.2, productive cough and right-sided pleuritic chest pain for three days",
        history=("COPD on 2 L home oxygen", "former smoker, 40 pack-years", "atrial fibrillation on apixaban"),
        exam="T 38.9, BP 112/68, HR 98, SpO2 88% on 2 L. Egophony and dullness at the right base",
        course=("Chest X-ray showed a right lower lobe consolidation.",
                "Blood cultures grew Streptococcus pneumoniae, pan-sensitive; Gram stain of sputum showed "
                "gram-positive diplococci.",
                "{He} was treated with ceftriaxone 1 g IV daily and azithromycin 500 mg, then switched to oral "
                "amoxicillin on hospital day 3.",
                "Oxygen was weaned back to {his} baseline of 2 L."),
        meds=("amoxicillin 1 g PO TID for 5 more days", "apixaban 5 mg PO BID", "tiotropium 18 mcg inhaled daily",
              "albuterol 2 puffs q4h PRN"),
        plan="repeat chest X-ray in 6 weeks, pneumococcal vaccination at follow-up",
    ),
    Scenario(
        problem="Parkinson's disease with recurrent falls",
        complaint="three falls in the past month and worsening freezing of gait",
        history=("Parkinson's disease diagnosed 9 years ago", "orthostatic hypotension", "osteoporosis",
                 "depression"),
        exam="Orthostatic: BP 138/80 supine, 104/66 standing. Resting tremor R > L, cogwheel rigidity, strength 5/5 "
             "throughout, shuffling gait with retropulsion on pull test",
        course=("CT head showed no acute intracranial process.",
                "Carbidopa-levodopa was changed from 25/100 three times daily to 25/100 four times daily.",
                "Physical therapy recommended a rolling walker and a home safety evaluation.",
                "Midodrine 2.5 mg was started for orthostatic hypotension with improvement."),
        meds=("carbidopa-levodopa 25/100 1 tab PO QID", "midodrine 2.5 mg PO TID", "sertraline 50 mg PO daily",
              "alendronate 70 mg PO weekly", "vitamin D 1000 units daily"),
        plan="home PT, neurology follow-up, DEXA scan",
    ),
    Scenario(
        problem="upper gastrointestinal bleed",
        complaint="two episodes of melena and lightheadedness",
        history=("NSAID use for osteoarthritis", "Barrett's esophagus", "alcohol use disorder in remission"),
        exam="BP 96/58, HR 118. Pale conjunctivae, epigastric tenderness, melena on rectal exam",
        course=("Hemoglobin on arrival was 6.8 and {he} received 3 units of packed red cells.",
                "EGD showed a 1.5 cm clean-based duodenal ulcer (Forrest III); biopsies were negative for "
                "Helicobacter pylori.",
                "{He} was treated with IV pantoprazole 40 mg BID and transitioned to oral therapy.",
                "Hemoglobin remained stable at 9.1-9.4 for 48 hours."),
        meds=("pantoprazole 40 mg PO BID for 8 weeks", "ferrous sulfate 325 mg PO daily",
              "acetaminophen 650 mg PO q6h PRN (no NSAIDs)"),
        plan="repeat CBC in one week, avoid NSAIDs, repeat EGD in 8 weeks",
    ),
    Scenario(
        problem="new-onset atrial fibrillation with rapid ventricular response",
        complaint="palpitations and chest tightness that began the evening before admission",
        history=("Graves' disease treated with radioactive iodine", "hypertension", "obstructive sleep apnea"),
        exam="HR 142 irregularly irregular, BP 128/84. No murmurs, lungs clear",
        course=("Rate was controlled with diltiazem infusion, then metoprolol 50 mg twice daily.",
                "TSH was 0.02 with a free T4 of 2.9; endocrinology was consulted.",
                "CHA2DS2-VASc score was 3 and anticoagulation with apixaban was started.",
                "Transthoracic echo showed normal LV function and a mildly dilated left atrium."),
        meds=("metoprolol tartrate 50 mg PO BID", "apixaban 5 mg PO BID", "methimazole 10 mg PO daily"),
        plan="Holter monitor in 4 weeks, thyroid function tests in 6 weeks",
    ),
    Scenario(
        problem="diabetic ketoacidosis",
        complaint="polyuria, vomiting and abdominal pain for two days",
        history=("type 1 diabetes since childhood", "diabetic retinopathy", "hypothyroidism"),
        exam="BP 104/62, HR 122, Kussmaul respirations, dry mucous membranes",
        course=("Initial glucose was 512 with an anion gap of 28 and pH 7.12.",
                "{He} was treated with an insulin infusion and 6 L of IV fluids; the gap closed within 14 hours.",
                "The precipitant was a missed insulin pump site change; the Foley catheter was removed on day 2.",
                "Diabetes educators reviewed sick-day rules."),
        meds=("insulin glargine 22 units SC nightly", "insulin lispro sliding scale with meals",
              "levothyroxine 75 mcg PO daily"),
        plan="endocrinology follow-up, HbA1c in 3 months",
    ),
    Scenario(
        problem="acute ischemic stroke",
        complaint="sudden right-sided weakness and word-finding difficulty",
        history=("hyperlipidemia", "hypertension", "prior TIA"),
        exam="NIHSS 6: right facial droop, right arm drift, expressive aphasia. Strength 4/5 in the right arm",
        course=("CT angiography showed a left M2 occlusion; tenecteplase was given within the window.",
                "MRI confirmed a small left frontal infarct; Bell's palsy was considered and excluded.",
                "Speech therapy noted steady improvement; NIHSS was 2 at discharge.",
                "Telemetry showed no atrial fibrillation over 72 hours."),
        meds=("aspirin 81 mg PO daily", "atorvastatin 80 mg PO nightly", "amlodipine 5 mg PO daily"),
        plan="outpatient speech and occupational therapy, 30-day event monitor",
    ),
    Scenario(
        problem="cellulitis of the left lower extremity",
        complaint="redness, warmth and swelling of the left shin for four days",
        history=("lymphedema", "obesity (BMI 41)", "venous stasis"),
        exam="T 38.1. A 15 x 10 cm area of erythema over the left anterior tibia, no fluctuance, 1+ edema",
        course=("{He} was treated with cefazolin 2 g IV every 8 hours with rapid improvement in erythema.",
                "Ultrasound was negative for abscess and for deep venous thrombosis.",
                "Blood cultures remained negative; {he} was changed to cephalexin 500 mg four times daily."),
        meds=("cephalexin 500 mg PO QID for 7 days", "compression stockings", "acetaminophen 1 g PO q8h PRN"),
        plan="leg elevation, wound care, podiatry referral",
    ),
    Scenario(
        problem="Crohn's disease flare",
        complaint="ten loose stools a day, cramping and a 5 kg weight loss",
        history=("ileocolonic Crohn's disease", "prior ileocecal resection", "iron deficiency"),
        exam="HR 102, BP 118/74. Diffuse tenderness in the right lower quadrant, no peritoneal signs",
        course=("C. difficile testing was negative; CRP was 84.",
                "{He} was treated with IV methylprednisolone 20 mg every 8 hours with improvement.",
                "MR enterography showed active terminal ileitis without abscess.",
                "Infliximab was started after a negative QuantiFERON test."),
        meds=("prednisone 40 mg PO daily, taper by 5 mg weekly", "infliximab 5 mg/kg IV at weeks 0, 2 and 6",
              "calcium 500 mg and vitamin D 800 units daily"),
        plan="GI follow-up, CBC and CRP in two weeks",
    ),
)

FAMILY_CONDITIONS = ("myocardial infarction", "breast cancer", "colon cancer", "stroke", "type 2 diabetes",
                     "Alzheimer's disease", "lung cancer", "Hodgkin lymphoma", "kidney failure")
SUBSTANCE = ("Denies tobacco or illicit drug use. Drinks 1-2 glasses of wine per week.",
             "Quit smoking 10 years ago (30 pack-years). No alcohol.",
             "Smokes 1/2 pack per day. Drinks socially.",
             "No tobacco, alcohol or recreational drugs.")
